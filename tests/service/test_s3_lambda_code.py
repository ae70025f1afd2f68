"""Lambda code from S3: CreateFunction and UpdateFunctionCode with S3Bucket/S3Key/S3ObjectVersion
(the way `aws cloudformation package` and `sam deploy` ship code), and S3's errors in Lambda's words."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import uuid
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

TRUST = {"Version": "2012-10-17", "Statement": [
    {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
HANDLER = "def handler(event, context):\n    return {'v': %d}\n"


def _zip(version: int) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:  # a fixed date: the same code gives the same zip, byte for byte
        zf.writestr(zipfile.ZipInfo("app.py", date_time=(2026, 1, 1, 0, 0, 0)), HANDLER % version)
    return buf.getvalue()


def _sha(data: bytes) -> str:
    return base64.b64encode(hashlib.sha256(data).digest()).decode()


def test_function_code_from_s3_versions_and_errors(aws: Callable[..., Any]) -> None:
    s3, lam = aws("s3"), aws("lambda")
    bucket, name = f"code-{uuid.uuid4().hex[:12]}", f"s3fn-{uuid.uuid4().hex[:8]}"
    role = aws("iam").create_role(RoleName=f"r-{uuid.uuid4().hex[:8]}",
                                  AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]
    s3.create_bucket(Bucket=bucket)
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    v1 = s3.put_object(Bucket=bucket, Key="pkg/app.zip", Body=_zip(1))["VersionId"]
    created = lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                                  Code={"S3Bucket": bucket, "S3Key": "pkg/app.zip"})
    assert created["CodeSha256"] == _sha(_zip(1))
    s3.put_object(Bucket=bucket, Key="pkg/app.zip", Body=_zip(2))
    updated = lam.update_function_code(FunctionName=name, S3Bucket=bucket, S3Key="pkg/app.zip")
    assert updated["CodeSha256"] == _sha(_zip(2))
    back = lam.update_function_code(FunctionName=name, S3Bucket=bucket, S3Key="pkg/app.zip", S3ObjectVersion=v1)
    assert back["CodeSha256"] == _sha(_zip(1))
    lam.get_waiter("function_updated_v2").wait(FunctionName=name)
    answer = lam.invoke(FunctionName=name, Payload=b"{}")
    assert json.loads(answer["Payload"].read()) == {"v": 1}
    with pytest.raises(ClientError) as info:
        lam.update_function_code(FunctionName=name, S3Bucket=bucket, S3Key="missing.zip")
    error = info.value.response["Error"]
    assert error["Code"] == "InvalidParameterValueException"
    assert error["Message"] == ("Error occurred while GetObject. S3 Error Code: NoSuchKey. S3 Error Message: "
                                "The specified key does not exist.")
    with pytest.raises(ClientError) as info:
        lam.create_function(FunctionName=f"{name}-x", Runtime="python3.12", Role=role, Handler="app.handler",
                            Code={"S3Bucket": f"nobucket-{uuid.uuid4().hex[:8]}", "S3Key": "a.zip"})
    assert "S3 Error Code: NoSuchBucket" in info.value.response["Error"]["Message"]
