"""PublishLayerVersion with Content.S3Bucket/S3Key(/S3ObjectVersion) read from onceflow's S3, the
layer mounted for a function, and S3's errors in Lambda's words (nothing published)."""

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
APP = "import shared\ndef handler(event, context):\n    return shared.VALUE\n"


def zipped(path: str, text: str) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(path, text)
    return buf.getvalue()


def test_layer_from_s3(aws: Callable[..., Any]) -> None:
    s3, lam = aws("s3"), aws("lambda")
    bucket, layer = f"layers-{uuid.uuid4().hex[:12]}", f"lay-{uuid.uuid4().hex[:8]}"
    s3.create_bucket(Bucket=bucket)
    s3.put_bucket_versioning(Bucket=bucket, VersioningConfiguration={"Status": "Enabled"})
    first = zipped("python/shared.py", "VALUE = 'one'\n")
    v1 = s3.put_object(Bucket=bucket, Key="layer.zip", Body=first)["VersionId"]
    s3.put_object(Bucket=bucket, Key="layer.zip", Body=zipped("python/shared.py", "VALUE = 'two'\n"))

    published = lam.publish_layer_version(LayerName=layer, Content={"S3Bucket": bucket, "S3Key": "layer.zip",
                                                                    "S3ObjectVersion": v1})  # fmt: skip
    assert published["Version"] == 1
    assert published["Content"]["CodeSha256"] == base64.b64encode(hashlib.sha256(first).digest()).decode()
    assert published["Content"]["CodeSize"] == len(first)

    for content, code, message in (
        ({"S3Bucket": bucket, "S3Key": "missing.zip"}, "NoSuchKey", "The specified key does not exist."),
        ({"S3Bucket": f"{bucket}-none", "S3Key": "layer.zip"}, "NoSuchBucket", "The specified bucket does not exist"),
    ):
        with pytest.raises(ClientError) as info:
            lam.publish_layer_version(LayerName=layer, Content=content)
        error = info.value.response["Error"]
        assert error["Code"] == "InvalidParameterValueException"
        assert error["Message"] == f"Error occurred while GetObject. S3 Error Code: {code}. S3 Error Message: {message}"
    assert [v["Version"] for v in lam.list_layer_versions(LayerName=layer)["LayerVersions"]] == [1]

    role = aws("iam").create_role(RoleName=f"r-{uuid.uuid4().hex[:8]}",
                                  AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]  # fmt: skip
    name = f"lay-fn-{uuid.uuid4().hex[:8]}"
    lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                        Code={"ZipFile": zipped("app.py", APP)}, Layers=[published["LayerVersionArn"]])  # fmt: skip
    answer = lam.invoke(FunctionName=name, Payload=b"{}")
    assert json.loads(answer["Payload"].read()) == "one"
