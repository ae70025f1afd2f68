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
