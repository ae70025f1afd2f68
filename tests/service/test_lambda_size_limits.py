"""Lambda's size limits at their edges, as recorded on AWS (LocalStack's aws-validated
TestLambdaSizeLimits, test_lambda_size_lims and test_lambda_api snapshots): code in S3 whose one
handler file unpacks to exactly 262,144,000 bytes is refused, one 1,000 bytes smaller is a function;
environment variables measuring 4,096 bytes as compact JSON are taken, one byte more is refused with
the string measured, its keys in the order given."""

from __future__ import annotations

import io
import json
import uuid
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from lambda_setup import ECHO, lambda_role, zip_of

LIMIT = 262_144_000


def padded_zip(size: int) -> bytes:
    """The echo handler padded with '#' to `size` bytes, as the recording's handler was."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        zf.writestr("handler.py", ECHO + "#" * (size - len(ECHO)))
    return buf.getvalue()


@pytest.fixture(scope="module")
def bucket(aws: Callable[..., Any]) -> str:
    name = f"size-lims-{uuid.uuid4().hex[:8]}"
    aws("s3").create_bucket(Bucket=name)
    return name


def create_from_s3(aws: Callable[..., Any], bucket: str, size: int) -> tuple[str, Any]:
    key = f"code-{size}.zip"
    aws("s3").put_object(Bucket=bucket, Key=key, Body=padded_zip(size))
    name = f"size-{uuid.uuid4().hex[:10]}"
    call = aws("lambda").create_function
    params = dict(FunctionName=name, Runtime="python3.12", Handler="handler.handler", Timeout=10,
                  Role=lambda_role(aws, "size-lims"), Code={"S3Bucket": bucket, "S3Key": key})  # fmt: skip
    try:
        return name, call(**params)
    except ClientError as exc:
        return name, exc.response


@pytest.mark.slow
def test_code_that_unpacks_to_the_limit_is_refused(aws: Callable[..., Any], bucket: str) -> None:
    name, response = create_from_s3(aws, bucket, LIMIT)
    message = "Unzipped size must be smaller than 262144000 bytes"
    assert response["Error"] == {"Code": "InvalidParameterValueException", "Message": message}
    assert (response["Type"], response["message"]) == ("User", message)
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 400
    with pytest.raises(ClientError) as missing:  # nothing was created
        aws("lambda").get_function(FunctionName=name)
    assert missing.value.response["Error"]["Code"] == "ResourceNotFoundException"


@pytest.mark.slow
def test_code_just_under_the_limit_is_a_function(aws: Callable[..., Any], bucket: str) -> None:
    name, response = create_from_s3(aws, bucket, LIMIT - 1000)
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 201
    assert (response["FunctionName"], response["State"], response["Handler"]) == (name, "Pending", "handler.handler")
    aws("lambda").delete_function(FunctionName=name)


ENV_LIMIT = ("Lambda was unable to configure your environment variables because the environment variables you "
             "have provided exceeded the 4KB limit. String measured: ")  # fmt: skip


def create_with(aws: Callable[..., Any], variables: dict[str, str]) -> Any:
    name = f"env-{uuid.uuid4().hex[:10]}"
    try:
        return aws("lambda").create_function(FunctionName=name, Runtime="python3.12", Handler="app.handler",
                                             Role=lambda_role(aws, "size-env"), Code={"ZipFile": zip_of()},
                                             Environment={"Variables": variables})  # fmt: skip
    except ClientError as exc:
        return exc.response


def test_environment_of_exactly_4_kb_is_taken(aws: Callable[..., Any]) -> None:
    variables = {"LARGE_VAR": "x" * (4096 - len('{"LARGE_VAR":""}'))}
    response = create_with(aws, variables)
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 201
    assert response["Environment"] == {"Variables": variables}


@pytest.mark.parametrize("variables", [
    {"LARGE_VAR": "x" * (4097 - len('{"LARGE_VAR":""}'))},
    {"SMALL_VAR": "ok", "LARGE_VAR": "x" * 4096},
], ids=["one-byte-over", "multiple-keys"])  # fmt: skip
def test_environment_over_4_kb_is_refused_with_the_string_measured(
    aws: Callable[..., Any], variables: dict[str, str]
) -> None:
    response = create_with(aws, variables)
    message = ENV_LIMIT + json.dumps(variables, separators=(",", ":"))
    assert response["Error"] == {"Code": "InvalidParameterValueException", "Message": message}
    assert (response["Type"], response["ResponseMetadata"]["HTTPStatusCode"]) == ("User", 400)


def stored_zip(size: int) -> bytes:
    """A zip holding `size` random bytes, stored: its size is about `size`."""
    import os

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        zf.writestr("app.py", ECHO)
        zf.writestr("blob.bin", os.urandom(size))
    return buf.getvalue()


def upload_refusal(aws: Callable[..., Any], name: str, **params: Any) -> Any:
    with pytest.raises(ClientError) as excinfo:
        aws("lambda").create_function(FunctionName=name, Runtime="python3.12", Handler="app.handler", Timeout=10,
                                      Role=lambda_role(aws, "size-upload"), **params)  # fmt: skip
    return excinfo.value.response


@pytest.mark.slow
def test_a_request_over_its_limit_with_a_zip_under_50_mib(aws: Callable[..., Any]) -> None:
    """test_oversized_request_create_lambda: a zip 1 KiB under 50 MiB and an environment that takes the
    request past 70,167,211 bytes: the request is named (before the environment's own 4 KB limit)."""
    name = f"size-{uuid.uuid4().hex[:10]}"
    response = upload_refusal(aws, name, Code={"ZipFile": stored_zip(50 * 1024 * 1024 - 2048)},
                              Environment={"Variables": {"largeKey": "#" * (1024 * 1024)}})
    assert response["Error"] == {"Code": "RequestEntityTooLargeException",
                                 "Message": "Request must be smaller than 70167211 bytes for the CreateFunction "
                                            "operation"}  # fmt: skip
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 413 and sorted(response) == ["Error", "ResponseMetadata"]
    with pytest.raises(ClientError, match="ResourceNotFoundException"):
        aws("lambda").get_function(FunctionName=name)


@pytest.mark.slow
def test_a_zip_over_50_mib_is_taken_from_s3(aws: Callable[..., Any], bucket: str) -> None:
    """The 50 MiB limit is the direct upload's (Lambda quotas: larger deployment packages go through
    S3); the same zip sent in the request is refused with the zipped size named."""
    data = stored_zip(50 * 1024 * 1024 + 1024)
    aws("s3").put_object(Bucket=bucket, Key="over-50.zip", Body=data)
    name = f"size-{uuid.uuid4().hex[:10]}"
    response = upload_refusal(aws, name, Code={"ZipFile": data})
    assert response["Error"] == {"Code": "RequestEntityTooLargeException",
                                 "Message": "Zipped size must be smaller than 52428800 bytes"}
    created = aws("lambda").create_function(FunctionName=name, Runtime="python3.12", Handler="app.handler",
                                            Role=lambda_role(aws, "size-upload"),
                                            Code={"S3Bucket": bucket, "S3Key": "over-50.zip"})  # fmt: skip
    assert created["CodeSize"] == len(data)
    assert json.loads(aws("lambda").invoke(FunctionName=name, Payload=b'{"a": 1}')["Payload"].read()) == {"a": 1}
