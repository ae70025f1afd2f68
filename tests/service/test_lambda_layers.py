"""Layers: onceflow serves none, so a function naming a layer version gets Lambda's answer for a
layer version that does not exist, and nothing changes."""

from __future__ import annotations

import io
import json
import uuid
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

TRUST = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}],
}
LAYER = "arn:aws:lambda:us-east-1:000000000000:layer:missing-layer:3"
OTHER_ACCOUNT_LAYER = "arn:aws:lambda:us-east-1:123456789012:layer:shared-tools:1"


def function_zip() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("app.py", "def handler(event, context):\n    return 1\n")
    return buf.getvalue()


@pytest.fixture(scope="module")
def role(aws: Callable[..., Any]) -> str:
    name = f"layers-{uuid.uuid4().hex[:8]}"
    return aws("iam").create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(TRUST))["Role"]["Arn"]


def assert_no_such_layer(excinfo: pytest.ExceptionInfo[ClientError], arn: str) -> None:
    response = excinfo.value.response
    assert response["Error"] == {"Code": "InvalidParameterValueException",
                                 "Message": f"Layer version {arn} does not exist."}
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 400
    assert response["Type"] == "User"


@pytest.mark.parametrize("layers", [[LAYER], [OTHER_ACCOUNT_LAYER, LAYER]])
def test_create_function_with_a_missing_layer(aws: Callable[..., Any], role: str, layers: list[str]) -> None:
    lam = aws("lambda")
    name = f"layered-{uuid.uuid4().hex[:8]}"
    with pytest.raises(ClientError) as excinfo:
        lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                            Code={"ZipFile": function_zip()}, Layers=layers)
    assert_no_such_layer(excinfo, layers[0])
    with pytest.raises(ClientError) as missing:
        lam.get_function(FunctionName=name)
    assert missing.value.response["Error"]["Code"] == "ResourceNotFoundException"


def test_update_function_configuration_with_a_missing_layer(aws: Callable[..., Any], role: str) -> None:
    lam = aws("lambda")
    name = f"layered-{uuid.uuid4().hex[:8]}"
    lam.create_function(FunctionName=name, Runtime="python3.12", Role=role, Handler="app.handler",
                        Code={"ZipFile": function_zip()})
    before = lam.get_function_configuration(FunctionName=name)
    with pytest.raises(ClientError) as excinfo:
        lam.update_function_configuration(FunctionName=name, Layers=[LAYER], Timeout=9)
    assert_no_such_layer(excinfo, LAYER)
    config = lam.get_function_configuration(FunctionName=name)
    assert config["RevisionId"] == before["RevisionId"] and config["Timeout"] == 3 and "Layers" not in config
    # An empty list names no layer: accepted, as removing every layer is.
    updated = lam.update_function_configuration(FunctionName=name, Layers=[], Timeout=9)
    assert updated["Timeout"] == 9 and "Layers" not in updated
