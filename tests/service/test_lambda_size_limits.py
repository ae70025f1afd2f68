"""Lambda's code size limit at its edge, as recorded on AWS (LocalStack's aws-validated
TestLambdaSizeLimits, test_lambda_size_lims snapshot): code in S3 whose one handler file unpacks to
exactly 262,144,000 bytes is refused, one 1,000 bytes smaller is a function."""

from __future__ import annotations

import io
import uuid
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError
from lambda_setup import ECHO, lambda_role

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
